/**
 * The main thread's handle on the writer thread (sqlite-writer.worker.ts). One thread per process,
 * started by the first write and shared by every store that writes through it (a server has one;
 * a test file opens many, and a thread costs a TypeScript loader to start). It is referenced only
 * while a request is out, so an idle store never keeps the process alive. If the thread dies, what
 * it held is rejected as StoreUnavailableError and the next write starts a new one: nothing is
 * acknowledged that was not committed.
 */
import type { Worker } from 'node:worker_threads'
import { StoreUnavailableError } from '../event-store.port.ts'
import type { WriteOutcome, WriteRequest } from './sqlite-writer.ts'
import { outcomesFromWire, requestsToWire, type ErrorDescription, type Wire } from './sqlite-writer-wire.ts'
import { startWorker } from '../../config/worker-thread.ts'
import type { AfterCommitModule } from './after-commit.ts'

export type ToWriter =
  | { readonly type: 'open'; readonly call: number; readonly store: number; readonly path: string; readonly afterCommit?: AfterCommitModule }
  | { readonly type: 'write'; readonly call: number; readonly store: number; readonly requests: Wire }
  | { readonly type: 'close'; readonly call: number; readonly store: number }

export type FromWriter =
  | { readonly type: 'ready' }
  | { readonly type: 'done'; readonly call: number; readonly outcomes?: Wire; readonly appliedThrough?: number }
  | { readonly type: 'failed'; readonly call: number; readonly error: ErrorDescription }

type Call =
  | { readonly type: 'open'; readonly store: number; readonly path: string; readonly afterCommit?: AfterCommitModule }
  | { readonly type: 'write'; readonly store: number; readonly requests: Wire }
  | { readonly type: 'close'; readonly store: number }

interface Waiting {
  resolve(done: Done): void
  reject(error: unknown): void
}

/** A call's answer: a write's outcomes, and how far the after-commit work got (0: not done). */
interface Done {
  readonly outcomes: Wire | undefined
  readonly appliedThrough: number
}

/** A batch written: one outcome per request, and the position the store's after-commit work reached with it (0: none). */
export interface WriteResult {
  readonly outcomes: WriteOutcome[]
  readonly appliedThrough: number
}

/** The writer's own error, rebuilt on this side with its SQLite code (so the store maps it to 503). */
function rebuild(description: ErrorDescription): Error {
  const error = new Error(description.message) as Error & { code?: string }
  error.name = description.name
  if (description.code !== undefined) error.code = description.code
  return error
}

class SharedThread {
  private worker: Worker | undefined
  private starting: Promise<Worker> | undefined
  /** Bumped by every start: a store opens its connection again on a new thread. */
  generation = 0
  private nextCall = 1
  private readonly waiting = new Map<number, Waiting>()

  /** The running thread, if there is one (the synchronous fast path). */
  get running(): Worker | undefined {
    return this.worker
  }

  async started(): Promise<Worker> {
    return this.worker ?? (await this.start())
  }

  send(worker: Worker, call: Call): Promise<Done> {
    return new Promise<Done>((resolve, reject) => {
      const id = this.nextCall++
      this.waiting.set(id, { resolve, reject })
      if (this.waiting.size === 1) worker.ref()
      worker.postMessage({ ...call, call: id } satisfies ToWriter)
    })
  }

  private start(): Promise<Worker> {
    this.starting ??= new Promise<Worker>((resolve, reject) => {
      const worker = startWorker(import.meta.url, 'sqlite-writer.worker')
      let ready = false
      worker.on('message', (message: FromWriter) => {
        switch (message.type) {
          case 'ready':
            ready = true
            this.generation++
            this.worker = worker
            this.starting = undefined
            if (this.waiting.size === 0) worker.unref()
            resolve(worker)
            return
          case 'done':
            this.settle(worker, message.call)?.resolve({ outcomes: message.outcomes, appliedThrough: message.appliedThrough ?? 0 })
            return
          case 'failed':
            this.settle(worker, message.call)?.reject(rebuild(message.error))
            return
        }
      })
      const stopped = (reason: string): void => {
        if (this.worker === worker) this.worker = undefined
        if (!ready) {
          this.starting = undefined
          reject(new StoreUnavailableError(`event store writer thread did not start: ${reason}`))
        }
        const lost = [...this.waiting.values()]
        this.waiting.clear()
        for (const waiting of lost) waiting.reject(new StoreUnavailableError(`event store writer thread stopped: ${reason}`))
      }
      worker.on('error', (error) => stopped(error.message))
      worker.on('exit', (code) => stopped(`exit code ${code}`))
    })
    return this.starting
  }

  private settle(worker: Worker, call: number): Waiting | undefined {
    const waiting = this.waiting.get(call)
    this.waiting.delete(call)
    if (this.waiting.size === 0) worker.unref()
    return waiting
  }
}

let shared: SharedThread | undefined
let nextStore = 1

/** One store's connection on the writer thread. */
export class WriterThread {
  private readonly store = nextStore++
  /** The thread generation this store's connection was opened on (0: not open). */
  private openedOn = 0
  private closed = false

  /** `afterCommit`: run on the thread on each batch once committed (after-commit.ts). */
  constructor(
    private readonly path: string,
    private readonly afterCommit?: AfterCommitModule,
  ) {}

  get hasAfterCommit(): boolean {
    return this.afterCommit !== undefined
  }

  /** Writes one batch on the thread; rejects (nothing written) when its transaction failed. */
  write(requests: readonly WriteRequest[]): Promise<WriteResult> {
    const thread = (shared ??= new SharedThread())
    const worker = thread.running
    const wire = requestsToWire(requests)
    if (worker !== undefined && this.openedOn === thread.generation) {
      return thread.send(worker, { type: 'write', store: this.store, requests: wire }).then(written)
    }
    return this.open(thread).then((opened) => thread.send(opened, { type: 'write', store: this.store, requests: wire })).then(written)
  }

  /** Starts the thread (if need be) and opens this store's connection on it, ahead of the first write. */
  async ready(): Promise<void> {
    await this.open((shared ??= new SharedThread()))
  }

  /** Closes this store's connection on the thread (after the batch it may be writing). */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.opening?.catch(() => undefined)
    const thread = shared
    const worker = thread?.running
    if (thread === undefined || worker === undefined || this.openedOn !== thread.generation) return
    await thread.send(worker, { type: 'close', store: this.store })
  }

  private opening: Promise<Worker> | undefined

  private open(thread: SharedThread): Promise<Worker> {
    this.opening ??= this.connect(thread).finally(() => {
      this.opening = undefined
    })
    return this.opening
  }

  private async connect(thread: SharedThread): Promise<Worker> {
    const worker = await thread.started()
    if (this.openedOn !== thread.generation) {
      const generation = thread.generation
      try {
        await thread.send(worker, this.afterCommit === undefined ? { type: 'open', store: this.store, path: this.path } : { type: 'open', store: this.store, path: this.path, afterCommit: this.afterCommit })
      } catch (error) {
        if (error instanceof StoreUnavailableError) throw error
        throw new StoreUnavailableError(`cannot open event store at ${this.path}: ${(error as Error).message}`, { cause: error })
      }
      this.openedOn = generation
    }
    return worker
  }
}

function written(done: Done): WriteResult {
  return { outcomes: outcomesFromWire(done.outcomes as Wire), appliedThrough: done.appliedThrough }
}
