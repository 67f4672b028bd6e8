import { runShard } from './run-shard.ts'

await runShard(2, 3)
