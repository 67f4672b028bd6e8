/** A commit follower module that cannot start: its thread ends with this error. */
import type { CommitFollower } from '../../../src/eventstore/sqlite/sqlite-writer-thread.ts'

export function follow(): CommitFollower {
  throw new Error('this follower cannot start')
}
