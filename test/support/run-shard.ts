// Runs a share of some test files in this one process: each file is imported in turn, and its tests run
// on this process's tap, one file after the other.
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'

/** A shard holds many files: the whole shard gets this long, where a file alone gets tap's `timeout`. */
const SHARD_TIMEOUT_MS = 20 * 60_000

export async function runShard(files: readonly string[], shard: number, shards: number): Promise<void> {
  t.setTimeout(SHARD_TIMEOUT_MS)
  const shardDir = t.testdirName
  for (const [index, file] of files.entries()) {
    if (index % shards !== shard) continue
    // Its tests follow this line in the output: a failure is found under the file it came from.
    t.comment(`file: ${file}`)
    // A file's own `t.testdir()` at its top level: a folder of its own, not the shard's, which the next
    // file to call it would empty while this file's tests still use it.
    t.testdirName = `${shardDir}-${file.replace(/[^a-zA-Z0-9._-]+/g, '-')}`
    await import(pathToFileURL(path.resolve(file)).href)
  }
}
