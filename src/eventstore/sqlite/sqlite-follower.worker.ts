/**
 * A store's follower thread: runs the CommitFollower a store asked for (followOnThread; a
 * server's read models) beside the writer thread, which starts it and sends it each run of batches it
 * committed. On the writer thread itself the follower held up every commit while it applied a run:
 * about 1.5 ms of every 10 under webhook load, and 15 to 20 ms at times. Here the writer only posts
 * the run and goes on committing; what the follower reports is passed on to the store's main thread.
 */
import { parentPort, workerData } from 'node:worker_threads'
import type { RecordedEvent } from '../../domain/event.ts'
import { describeError } from './sqlite-writer-wire.ts'
import type { CommitFollowerModule, FromFollower } from './sqlite-writer-thread.ts'

const port = parentPort
if (port === null) throw new Error('sqlite-follower.worker.ts runs only as a worker thread')
const send = (message: FromFollower): void => port.postMessage(message)

const { module, options } = workerData as { module: string; options: unknown }
// A module that fails to load or to start ends the thread with its error: the follow call fails.
const follower = ((await import(module)) as CommitFollowerModule).follow(options)

port.on('message', (run: readonly RecordedEvent[] | 'close') => {
  if (run === 'close') {
    follower.close()
    port.close()
    return
  }
  try {
    send({ type: 'followed', through: follower.committed(run) })
  } catch (error) {
    send({ type: 'follow_failed', error: describeError(error) })
  }
})
send({ type: 'ready' })
