import { SHARDS, sharedFiles } from '../test-plan.ts'
import { runShard } from '../run-shard.ts'

await runShard(sharedFiles(), 1, SHARDS)
