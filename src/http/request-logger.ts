/**
 * Each request's logger, made when the request first logs at an enabled level. Fastify makes a child
 * logger per request to bind its `reqId`, and pino passes each binding through the redactor when
 * redaction has wildcard paths (ours do: secrets are censored wherever they sit); that was an eighth
 * of the webhook's allocations, for a logger that most requests, at `LOG_LEVEL=warn`, never use.
 * The lines it writes are the same: the child is made from the same bindings on first use.
 */
import type { FastifyBaseLogger } from 'fastify'
import type { Bindings, ChildLoggerOptions } from 'pino'

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'
const LEVELS: readonly Level[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace']

export function lazyRequestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  let child: FastifyBaseLogger | undefined
  const made = (): FastifyBaseLogger => (child ??= logger.child(bindings, options))
  const enabled = (level: Level): boolean => (logger as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.(level) ?? true
  const lazy = {
    get level() {
      return (child ?? logger).level
    },
    set level(level: string) {
      made().level = level
    },
    silent: () => undefined,
    child: (more: Bindings, moreOptions?: ChildLoggerOptions) => made().child(more, moreOptions),
  } as Record<string, unknown>
  for (const level of LEVELS) {
    lazy[level] = (...args: unknown[]) => {
      if (child !== undefined || enabled(level)) (made()[level] as (...a: unknown[]) => void)(...args)
    }
  }
  return lazy as unknown as FastifyBaseLogger
}
