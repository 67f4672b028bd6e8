/**
 * Each request's logger, made when the request first logs at an enabled level. Fastify makes a child
 * logger per request to bind its `reqId`, and pino passes each binding through the redactor when
 * redaction has wildcard paths (ours do: secrets are censored wherever they sit); that was a large
 * share of the webhook's allocations, for a logger that most requests, at `LOG_LEVEL=warn`, never use.
 * The lines it writes are the same: the child is made from the same bindings on first use.
 */
import type { FastifyBaseLogger } from 'fastify'
import type { Bindings, ChildLoggerOptions } from 'pino'

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'
type LogMethod = (...args: unknown[]) => void
const LEVELS: readonly Level[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace']

/**
 * One object a request, its methods on the prototype: closures made per request (a getter, a
 * method a level) were a large share of a webhook request's allocation.
 */
class LazyRequestLogger {
  private made: FastifyBaseLogger | undefined

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  get level(): string {
    return (this.made ?? this.parent).level
  }

  set level(level: string) {
    this.logger().level = level
  }

  // fatal, error, warn, info, debug and trace: each logs at its level (see log below).
  static {
    for (const level of LEVELS) {
      Object.defineProperty(this.prototype, level, {
        value(this: LazyRequestLogger, ...args: unknown[]) {
          this.log(level, args)
        },
        writable: true,
        configurable: true,
      })
    }
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options)
  }

  private log(level: Level, args: unknown[]): void {
    if (this.made === undefined && !this.enabled(level)) return
    const logger = this.logger()
    Reflect.apply(logger[level] as LogMethod, logger, args)
  }

  private enabled(level: Level): boolean {
    return (this.parent as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.(level) ?? true
  }

  private logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options))
  }
}

export function lazyRequestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyRequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger
}
