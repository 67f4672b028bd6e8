/** One streamed turn of the provider, abandoned when it stalls or the lead interrupts, and how its failure is named. */
import type { TurnChunk } from '../../integrations/assistant/assistant-provider.port.ts'

export class Interrupted extends Error {
  override readonly name = 'Interrupted'
}
export class TimedOut extends Error {
  override readonly name = 'TimedOut'
}

export function errorName(error: unknown): string {
  if (error && typeof error === 'object') {
    const status = (error as { status?: unknown }).status
    const name = (error as { name?: unknown }).name
    return `${typeof name === 'string' ? name : 'error'}${typeof status === 'number' ? ` ${status}` : ''}`
  }
  return 'error'
}

/**
 * The provider's chunks, abandoned when none arrives for `ms` or the turn is aborted: each wait races
 * the abort, so an adapter that ignores its signal cannot hold the call.
 */
export async function* withIdleTimeout(chunks: AsyncIterable<TurnChunk>, controller: AbortController, ms: number): AsyncIterable<TurnChunk> {
  const iterator = chunks[Symbol.asyncIterator]()
  const aborted = new Promise<never>((_, reject) => {
    if (controller.signal.aborted) reject(controller.signal.reason)
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true })
  })
  aborted.catch(() => {})
  try {
    for (;;) {
      const timer = setTimeout(() => controller.abort(new TimedOut()), ms)
      let next: IteratorResult<TurnChunk>
      try {
        next = await Promise.race([iterator.next(), aborted])
      } finally {
        clearTimeout(timer)
      }
      if (controller.signal.aborted) throw controller.signal.reason
      if (next.done) return
      yield next.value
    }
  } finally {
    void iterator.return?.()?.catch(() => {})
  }
}
