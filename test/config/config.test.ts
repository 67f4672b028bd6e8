import t from 'tap'
import { ConfigError, defaultSecretKeyPath, defaultViewsPath, loadConfig, eventsAllowPrivateFromEnv } from '../../src/config/config.ts'

t.test('defaults: embedded store, loopback, port 3000', async (t) => {
  t.same(loadConfig({}), {
    port: 3000,
    host: '127.0.0.1',
    store: 'sqlite:./data/leadline.db',
    viewsPath: './data/leadline.views.db',
    publicUrl: 'http://127.0.0.1:3000',
    logLevel: 'info',
    webhookRateLimit: { ratePerSecond: 50, burst: 200 },
    readyLagMs: 1000,
    facebook: null,
    googleCalendar: { client: null, apiUrl: null },
    trustProxy: false,
    operatorTokenHashes: [],
    secretKey: null,
    oauth: false,
    eventsAllowPrivate: false,
    calendarSyncSeconds: 60,
  })
})

t.test('LEADLINE_READY_LAG_MS: whole milliseconds from 0', async (t) => {
  t.equal(loadConfig({ LEADLINE_READY_LAG_MS: '0' }).readyLagMs, 0)
  t.equal(loadConfig({ LEADLINE_READY_LAG_MS: '250' }).readyLagMs, 250)
  for (const value of ['-1', '1.5', 'soon']) t.throws(() => loadConfig({ LEADLINE_READY_LAG_MS: value }), ConfigError, value)
})

t.test('the webhook rate limit per token: a rate and a burst, or off', async (t) => {
  t.same(loadConfig({ LEADLINE_WEBHOOK_RATE: '5', LEADLINE_WEBHOOK_BURST: '10' }).webhookRateLimit, { ratePerSecond: 5, burst: 10 })
  t.same(loadConfig({ LEADLINE_WEBHOOK_RATE: '0.5' }).webhookRateLimit, { ratePerSecond: 0.5, burst: 200 })
  t.equal(loadConfig({ LEADLINE_WEBHOOK_RATE: 'off' }).webhookRateLimit, null)
  for (const env of [{ LEADLINE_WEBHOOK_RATE: '0' }, { LEADLINE_WEBHOOK_RATE: '-1' }, { LEADLINE_WEBHOOK_RATE: 'fast' }, { LEADLINE_WEBHOOK_BURST: '0' }, { LEADLINE_WEBHOOK_BURST: '1.5' }]) {
    t.throws(() => loadConfig(env), /LEADLINE_WEBHOOK_(RATE|BURST)/, JSON.stringify(env))
  }
})

t.test('values are read, normalised and derived', async (t) => {
  const config = loadConfig({
    PORT: '8080',
    HOST: '0.0.0.0',
    LEADLINE_STORE: 'esdb://localhost:2113?tls=false',
    LEADLINE_PUBLIC_URL: 'https://leads.example.com///',
    LOG_LEVEL: 'warn',
    EMPTY: '',
  })
  t.match(config, { port: 8080, host: '0.0.0.0', store: 'esdb://localhost:2113?tls=false', viewsPath: './data/views.db', publicUrl: 'https://leads.example.com', logLevel: 'warn' })
  t.equal(loadConfig({ HOST: '::', PORT: '1' }).publicUrl, 'http://localhost:1')
  t.equal(loadConfig({ HOST: '::1' }).publicUrl, 'http://[::1]:3000')
  t.equal(loadConfig({ LEADLINE_VIEWS: '/var/views.db' }).viewsPath, '/var/views.db')
  t.equal(loadConfig({ PORT: '' }).port, 3000, 'an empty value means unset')
  t.equal(defaultViewsPath('sqlite:/srv/log'), '/srv/log.views.db')
})

t.test('bad values stop the start with every problem named, each in one sentence (never a raw parser message)', async (t) => {
  const bad: Array<[NodeJS.ProcessEnv, RegExp]> = [
    [{ PORT: 'eighty' }, /^invalid configuration:\n {2}- PORT: must be a TCP port number from 0 to 65535, such as 3000$/],
    [{ PORT: '70000' }, /PORT: must be a TCP port number from 0 to 65535/],
    [{ PORT: '80.5' }, /PORT: must be a TCP port number/],
    [{ LEADLINE_READY_LAG_MS: '-1' }, /LEADLINE_READY_LAG_MS: must be a whole number of milliseconds from 0 to 3,600,000/],
    [{ LEADLINE_WEBHOOK_BURST: 'lots' }, /LEADLINE_WEBHOOK_BURST: must be a whole number of requests from 1 to 1,000,000/],
    [{ LEADLINE_STORE: 'postgres://x' }, /LEADLINE_STORE: must be sqlite:PATH or an EventStoreDB connection string/],
    [{ LEADLINE_PUBLIC_URL: 'not a url' }, /^invalid configuration:\n {2}- LEADLINE_PUBLIC_URL: must be an http\(s\) URL such as https:\/\/leads.example.com$/],
    [{ LEADLINE_PUBLIC_URL: 'ftp://x.example' }, /LEADLINE_PUBLIC_URL: must be an http\(s\) URL/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent/],
  ]
  for (const [env, message] of bad) t.throws(() => loadConfig(env), message, JSON.stringify(env))
  try {
    loadConfig({ PORT: 'x', LOG_LEVEL: 'y' })
    t.fail('should throw')
  } catch (error) {
    t.ok(error instanceof ConfigError)
    t.equal((error as ConfigError).problems.length, 2, 'both problems are reported at once')
  }
})

t.test('LEADLINE_SECRET_KEY: 32 bytes as base64 or hex; anything else stops the start', async (t) => {
  const key = Buffer.alloc(32, 9)
  t.same(loadConfig({ LEADLINE_SECRET_KEY: key.toString('base64') }).secretKey, key)
  t.same(loadConfig({ LEADLINE_SECRET_KEY: ` ${key.toString('hex')} ` }).secretKey, key)
  for (const value of ['secret', Buffer.alloc(31).toString('base64'), Buffer.alloc(32).toString('hex').slice(2)]) {
    t.throws(() => loadConfig({ LEADLINE_SECRET_KEY: value }), /LEADLINE_SECRET_KEY: must be 32 random bytes/, value)
  }
  t.equal(defaultSecretKeyPath('sqlite:./data/leadline.db'), './data/leadline.secret-key')
  t.equal(defaultSecretKeyPath('esdb://host:2113'), null)
})

t.test('LEADLINE_OAUTH: off by default; on needs an https (or loopback http) public URL, or the start stops and says why', async (t) => {
  t.equal(loadConfig({}).oauth, false)
  t.equal(loadConfig({ LEADLINE_OAUTH: 'on', LEADLINE_PUBLIC_URL: 'https://leads.example.com' }).oauth, true)
  t.equal(loadConfig({ LEADLINE_OAUTH: 'off', LEADLINE_PUBLIC_URL: 'http://leads.example.com' }).oauth, false)
  t.throws(() => loadConfig({ LEADLINE_OAUTH: 'on' }), /LEADLINE_OAUTH: on needs LEADLINE_PUBLIC_URL to be an https URL .*it is not set/)
  t.throws(() => loadConfig({ LEADLINE_OAUTH: 'on', LEADLINE_PUBLIC_URL: 'http://leads.example.com' }), /plain http only on this machine's loopback.*it is http:\/\/leads.example.com/)
  for (const loopback of ['http://127.0.0.1:3111', 'http://localhost:3111', 'http://[::1]:3111']) {
    t.equal(loadConfig({ LEADLINE_OAUTH: 'on', LEADLINE_PUBLIC_URL: loopback }).oauth, true, `plain http on loopback: ${loopback}`)
  }
  t.throws(() => loadConfig({ LEADLINE_OAUTH: 'on', LEADLINE_PUBLIC_URL: 'http://127.0.0.1.example.com' }), /it is http:\/\/127.0.0.1.example.com/, 'a name that merely starts like loopback')
  t.throws(() => loadConfig({ LEADLINE_OAUTH: 'yes' }), /LEADLINE_OAUTH: must be on or off/)
})

t.test('LEADLINE_EVENTS_ALLOW_PRIVATE: off by default; 1 allows private receivers; anything else stops the start', async (t) => {
  t.equal(loadConfig({}).eventsAllowPrivate, false)
  t.equal(loadConfig({ LEADLINE_EVENTS_ALLOW_PRIVATE: '1' }).eventsAllowPrivate, true)
  t.equal(loadConfig({ LEADLINE_EVENTS_ALLOW_PRIVATE: '0' }).eventsAllowPrivate, false)
  t.equal(eventsAllowPrivateFromEnv({}), false)
  t.equal(eventsAllowPrivateFromEnv({ LEADLINE_EVENTS_ALLOW_PRIVATE: ' 1 ' }), true)
  for (const value of ['yes', 'true', 'on', '2']) {
    t.throws(() => loadConfig({ LEADLINE_EVENTS_ALLOW_PRIVATE: value }), /LEADLINE_EVENTS_ALLOW_PRIVATE: must be 1/, value)
    t.throws(() => eventsAllowPrivateFromEnv({ LEADLINE_EVENTS_ALLOW_PRIVATE: value }), /LEADLINE_EVENTS_ALLOW_PRIVATE: must be 1/, value)
  }
})

t.test('Google Calendar: the OAuth client both or neither, and one address for a double or a proxy', async (t) => {
  const id = '1234567890-abc.apps.googleusercontent.com'
  t.same(loadConfig({ GOOGLE_CLIENT_ID: id, GOOGLE_CLIENT_SECRET: 'GOCSPX-secret' }).googleCalendar, { client: { clientId: id, clientSecret: 'GOCSPX-secret' }, apiUrl: null })
  t.same(loadConfig({ LEADLINE_GOOGLE_API_URL: 'http://127.0.0.1:4010/' }).googleCalendar, { client: null, apiUrl: 'http://127.0.0.1:4010' }, 'the address alone: no consent offered')
  t.throws(() => loadConfig({ GOOGLE_CLIENT_ID: id }), new ConfigError(['GOOGLE_CLIENT_SECRET: required with GOOGLE_CLIENT_ID (Google Calendar is half configured: set both, or neither)']))
  t.throws(() => loadConfig({ GOOGLE_CLIENT_SECRET: 'GOCSPX-secret' }), new ConfigError(['GOOGLE_CLIENT_ID: required with GOOGLE_CLIENT_SECRET (Google Calendar is half configured: set both, or neither)']))
  t.throws(() => loadConfig({ GOOGLE_CLIENT_ID: 'not an id', GOOGLE_CLIENT_SECRET: 's' }), ConfigError)
  t.throws(() => loadConfig({ LEADLINE_GOOGLE_API_URL: 'ftp://google.example' }), ConfigError)
})
