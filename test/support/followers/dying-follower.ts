/** A commit follower whose thread ends (as an out-of-memory kill would end it) on the second run it is fed. */
import type { CommitFollower } from '../../../src/eventstore/sqlite/sqlite-writer-thread.ts'
import type { RecordedEvent } from '../../../src/domain/event.ts'

export function follow(): CommitFollower {
  let runs = 0
  return {
    committed(events: readonly RecordedEvent[]): number {
      if (++runs === 2) process.exit(7)
      return (events[events.length - 1] as RecordedEvent).position
    },
    close(): void {},
  }
}
