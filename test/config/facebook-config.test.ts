/** FACEBOOK_*: both secrets or neither, a pinned Graph API version, and a half-configured Facebook stops the start. */
import t from 'tap'
import { ConfigError, FACEBOOK_GRAPH_VERSION, facebookConfig, loadConfig } from '../../src/config/config.ts'

const SECRETS = { FACEBOOK_APP_SECRET: 'app-secret-0123456789', FACEBOOK_VERIFY_TOKEN: 'verify-token-0123' }

t.test('unset: Facebook Lead Ads is off', async (t) => {
  t.equal(facebookConfig({}), null)
  t.equal(loadConfig({}).facebook, null)
})

t.test('both secrets: the Graph API at graph.facebook.com, at the pinned version, 10 s a request', async (t) => {
  t.same(facebookConfig(SECRETS), { appSecret: SECRETS.FACEBOOK_APP_SECRET, verifyToken: SECRETS.FACEBOOK_VERIFY_TOKEN, graphUrl: 'https://graph.facebook.com', graphVersion: FACEBOOK_GRAPH_VERSION, graphTimeoutMs: 10_000 })
  t.match(FACEBOOK_GRAPH_VERSION, /^v\d+\.\d+$/)
  t.match(facebookConfig({ ...SECRETS, FACEBOOK_GRAPH_URL: 'http://127.0.0.1:4000/', FACEBOOK_GRAPH_VERSION: 'v23.0', FACEBOOK_GRAPH_TIMEOUT_MS: '500' }), { graphUrl: 'http://127.0.0.1:4000', graphVersion: 'v23.0', graphTimeoutMs: 500 })
})

t.test('half configured, or a bad value: a ConfigError naming what to set', async (t) => {
  for (const [env, says] of [
    [{ FACEBOOK_APP_SECRET: 'app-secret-0123456789' }, /FACEBOOK_VERIFY_TOKEN: required with FACEBOOK_APP_SECRET/],
    [{ FACEBOOK_VERIFY_TOKEN: 'verify-token-0123' }, /FACEBOOK_APP_SECRET: required with FACEBOOK_VERIFY_TOKEN/],
    [{ FACEBOOK_GRAPH_URL: 'http://127.0.0.1:4000' }, /FACEBOOK_GRAPH_URL: set only with FACEBOOK_APP_SECRET and FACEBOOK_VERIFY_TOKEN/],
    [{ ...SECRETS, FACEBOOK_GRAPH_URL: 'ftp://graph' }, /FACEBOOK_GRAPH_URL: must be an http\(s\) URL/],
    [{ ...SECRETS, FACEBOOK_GRAPH_VERSION: '24' }, /FACEBOOK_GRAPH_VERSION: must be a Graph API version/],
    [{ ...SECRETS, FACEBOOK_VERIFY_TOKEN: 'short' }, /FACEBOOK_VERIFY_TOKEN: must be at least 8 characters/],
  ] as const) {
    let thrown: unknown
    try {
      loadConfig(env)
    } catch (error) {
      thrown = error
    }
    t.ok(thrown instanceof ConfigError, `${Object.keys(env).join(', ')}: a ConfigError`)
    t.match((thrown as Error).message, says)
  }
})
