/**
 * The process around the app: logging, timeouts, listening, and a graceful stop on SIGTERM/SIGINT
 * (stop accepting, finish in-flight requests, close the store cleanly).
 */
import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { pino, type LoggerOptions } from 'pino'
import type { AddressInfo } from 'node:net'
import { ConfigError, type Config, type RateLimit, type TrustProxy } from '../config/config.ts'
import { listeningUrl, removeServerAddress, writeServerAddress } from '../config/server-address.ts'
import { openLeadline, type Leadline } from '../leadline.ts'
import { textSender } from '../domain/lead/texts/text-body.ts'
import { CARRIER_SECRET_HEADERS } from '../integrations/carrier/open-carrier.ts'
import { app, openOAuth } from './app.ts'
import { defaultToolRegistry } from './mcp/tool-registry.ts'
import { redactFields, redactText, redactUrl } from './redact.ts'
import { startupLine } from './root.route.ts'
import { lazyRequestLogger } from './request-logger.ts'

export function loggerOptions(level: Config['logLevel']): FastifyServerOptions['logger'] {
  return {
    level,
    redact: {
      // Credentials in headers wherever a plugin logs them: @fastify/multipart logs `busboyOptions.headers`
      // at trace level (found by the secrets scan, test/security/secrets-in-logs.test.ts). The serializers
      // below redact any other header named for a secret.
      paths: [
        ...['req.headers', 'headers', '*.headers'].flatMap((at) =>
          ['authorization', 'x-service-token', 'cookie', 'stripe-signature', ...CARRIER_SECRET_HEADERS].map((header) => `${at}["${header}"]`),
        ),
        '*.token',
        '*.secret',
        '*.apiKey',
      ],
      censor: '[REDACTED]',
    },
    serializers: {
      req(request: { method: string; url: string; ip?: string }) {
        return { method: request.method, url: redactUrl(request.url), remoteAddress: request.ip }
      },
      // Whatever logs a request's parts under these names has them redacted by pattern.
      headers: redactFields,
      query: redactFields,
      body: redactFields,
      params: redactFields,
      busboyOptions: redactFields,
      url: (url: unknown) => (typeof url === 'string' ? redactUrl(url) : url),
      err(error: Error) {
        const shown = pino.stdSerializers.err(error) as ReturnType<typeof pino.stdSerializers.err> & { message: string; stack: string }
        // The stack's frames are file names and lines (an `oauth-server.ts:12` is not a secret); its message lines are redacted.
        const stack = String(shown.stack).split('\n').map((line) => (/^\s+at /.test(line) ? line : redactText(line))).join('\n')
        return { ...shown, message: redactText(String(shown.message)), stack }
      },
    },
    hooks: {
      // A message that quotes a request (a URL, a field) loses its secrets too.
      logMethod(args: unknown[], method: (...args: unknown[]) => void) {
        method.apply(this, args.map((arg) => (typeof arg === 'string' ? redactText(arg) : arg)))
      },
    },
  }
}

function isLoggerInstance(logger: unknown): logger is FastifyBaseLogger {
  return typeof logger === 'object' && logger !== null && typeof (logger as { child?: unknown }).child === 'function'
}

/** A fastify instance with the Leadline app registered, not yet listening. */
export async function createHttpServer(
  leadline: Leadline,
  options: { logger: FastifyServerOptions['logger'] | FastifyBaseLogger; publicUrl: string; webhookRateLimit?: RateLimit | null; readyLagMs?: number; trustProxy?: TrustProxy; operatorTokenHashes?: readonly string[]; oauth?: boolean },
): Promise<FastifyInstance> {
  // The slow parts of starting, before any plugin registers: fastify bounds each plugin's registration
  // (pluginTimeout), and importing the tools or the OAuth library on a busy machine could outlast it.
  const tools = await defaultToolRegistry()
  const oauth = options.oauth === true ? await openOAuth(leadline, options.publicUrl.replace(/\/+$/, '')) : null
  const logging = isLoggerInstance(options.logger) ? { loggerInstance: options.logger } : { logger: options.logger }
  const fastify = Fastify({
    ...logging,
    genReqId: () => randomUUID(),
    // request.ip (the sign-in limit, logs) is the client's, from X-Forwarded-For, only through these proxies.
    trustProxy: options.trustProxy ?? false,
    childLoggerFactory: lazyRequestLogger,
    // Strip prototype-poisoning keys instead of failing the request: a lead is never lost to them.
    onProtoPoisoning: 'remove',
    onConstructorPoisoning: 'remove',
    connectionTimeout: 30_000,
    keepAliveTimeout: 72_000,
    requestTimeout: 30_000,
    return503OnClosing: true,
  })
  await fastify.register(app, {
    leadline,
    publicUrl: options.publicUrl,
    ...(options.webhookRateLimit === undefined ? {} : { webhookRateLimit: options.webhookRateLimit }),
    ...(options.readyLagMs === undefined ? {} : { readyLagMs: options.readyLagMs }),
    ...(options.operatorTokenHashes === undefined ? {} : { operatorTokenHashes: options.operatorTokenHashes }),
    tools,
    oauth,
  })
  return fastify
}

/** `leadline serve`: runs until SIGTERM or SIGINT. */
export async function serve(config: Config): Promise<{ fastify: FastifyInstance; leadline: Leadline; stop: () => Promise<void> }> {
  const logger = pino(loggerOptions(config.logLevel) as LoggerOptions)
  const leadline = await openLeadline({ store: config.store, viewsPath: config.viewsPath, publicUrl: config.publicUrl, logger, serving: true, eventReceivers: { allowPrivate: config.eventsAllowPrivate } })
  const fastify = await createHttpServer(leadline, { logger, publicUrl: config.publicUrl, webhookRateLimit: config.webhookRateLimit, readyLagMs: config.readyLagMs, trustProxy: config.trustProxy, operatorTokenHashes: config.operatorTokenHashes, oauth: config.oauth })
  // Listen before starting: while a new node catches up from zero, /readyz answers 503 instead of refusing
  // connections. Where the process managers begin is fixed first, so no lead is missed in between.
  await leadline.prepare()
  try {
    await fastify.listen({ port: config.port, host: config.host })
  } catch (error) {
    await fastify.close().catch(() => undefined)
    await leadline.close().catch(() => undefined)
    throw listenError(error, config)
  }
  const { port } = fastify.server.address() as AddressInfo
  const listening = listeningUrl(config.host, port)
  writeServerAddress(config.store, listening)
  await leadline.start()
  fastify.log.info({ store: leadline.store.kind, views: config.viewsPath, publicUrl: config.publicUrl }, 'leadline is serving')
  if (config.eventsAllowPrivate) fastify.log.warn('LEADLINE_EVENTS_ALLOW_PRIVATE=1: outbound events may go to private, loopback and plain-http receivers')
  // For people: where to go, on standard error beside the JSON logs (PORT=0 has its real port here).
  process.stderr.write(`${startupLine(config.port === 0 ? listening : config.publicUrl)}\n`)
  await logBareCallerIds(leadline, fastify.log)

  let stopping: Promise<void> | null = null
  const stop = () => {
    stopping ??= (async () => {
      fastify.log.info('shutting down: finishing in-flight requests')
      removeServerAddress(config.store)
      await fastify.close()
      await leadline.close()
    })()
    return stopping
  }
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      void stop().then(
        () => process.exit(0),
        (error: unknown) => {
          fastify.log.error({ err: error }, 'unclean shutdown')
          process.exit(1)
        },
      )
    })
  }
  return { fastify, leadline, stop }
}

/** A port that cannot be had, said as a setting to change; anything else as it came. */
function listenError(error: unknown, config: Config): unknown {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'EADDRINUSE') {
    return new ConfigError([`PORT: ${config.port} on ${config.host} is already in use (another Leadline, or another program, listens there): stop it, or choose another port, e.g. PORT=${config.port === 65535 ? 3001 : config.port + 1} npm start`])
  }
  if (code === 'EACCES') return new ConfigError([`PORT: ${config.port} needs privileges to listen on: choose a port from 1024 up, e.g. PORT=3000 npm start`])
  if (code === 'EADDRNOTAVAIL') return new ConfigError([`HOST: ${config.host} is not an address of this machine: use 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)`])
  return error
}

/** Says at start which accounts text from the bare caller ID (no Messaging Service), which carriers may filter. */
async function logBareCallerIds(leadline: Leadline, log: Pick<FastifyBaseLogger, 'warn'>): Promise<void> {
  const bare: string[] = []
  for (const row of leadline.accountsQueries.list()) {
    const account = await leadline.accounts.get(row.accountId)
    if (account !== null && account.settings.callerId !== null && textSender(account.settings).kind === 'caller_id') bare.push(account.accountId)
  }
  if (bare.length === 0) return
  log.warn(
    { accounts: bare.slice(0, 20), count: bare.length },
    `texts of ${bare.length === 1 ? '1 account go' : `${bare.length} accounts go`} from the bare caller ID and may be filtered by carriers (no A2P 10DLC registration without a Messaging Service): leadline account set ACCOUNT_ID --messaging-service MG…`,
  )
}
