// `npm run test:unit` runs the unit test files in three processes (two at a time) instead of one each: a file's own tests
// take a second or less, but starting a process and loading the app takes two to three more.
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { unitTestFiles } from './unit-test-files.ts'

export async function runShard(shard: number, shards: number): Promise<void> {
  for (const [index, file] of unitTestFiles().entries()) {
    if (index % shards === shard) await import(pathToFileURL(path.resolve(file)).href)
  }
}
