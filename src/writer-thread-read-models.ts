/**
 * The read models a server applies on the embedded store's writer thread, once a batch is committed
 * and before its appends are answered (src/eventstore/sqlite/after-commit.ts): the events are there
 * already, parsed for their hashes, and the event loop, which answers every request, no longer spends
 * a fifth of a new lead's time inserting its rows. A client that has its 2xx still reads its write.
 * When the writer cannot (the read models behind the batch, the views' lock held by another
 * process), it leaves the batch to the main thread's projection runner, which applies it as ever.
 *
 * The composition root's, beside src/leadline.ts: it names the projections, which the store (below
 * the read models) must not import.
 */
import path from 'node:path'
import { PROJECTIONS } from '../projections/projections.ts'
import type { AfterCommit, AfterCommitModule, OpenAfterCommit } from './eventstore/sqlite/index.ts'
import { openCommittedApplier } from './read-models/projection-runner.ts'

interface Options {
  readonly viewsPath: string
}

/** The writer thread imports this module and calls this (after-commit.ts). */
export const openAfterCommit: OpenAfterCommit = (options): AfterCommit => openCommittedApplier((options as Options).viewsPath, PROJECTIONS)

/** The after-commit module that applies the read models kept in `viewsPath`. */
export function writerThreadReadModels(viewsPath: string): AfterCommitModule {
  return { url: import.meta.url, options: { viewsPath: path.resolve(viewsPath) } satisfies Options }
}
