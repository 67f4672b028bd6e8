/** A commit follower for the writer-thread tests: takes `ms` of its thread's time over every run it is fed. */
import type { CommitFollower } from '../../../src/eventstore/sqlite/sqlite-writer-thread.ts'
import type { RecordedEvent } from '../../../src/domain/event.ts'

export function follow(options: unknown): CommitFollower {
  const { ms } = options as { ms: number }
  return {
    committed(events: readonly RecordedEvent[]): number {
      const until = Date.now() + ms
      while (Date.now() < until) {
        // busy: a follower's work holds its thread
      }
      return (events[events.length - 1] as RecordedEvent).position
    },
    close(): void {},
  }
}
