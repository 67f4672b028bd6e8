import { runShard } from './run-shard.ts'

await runShard(1, 3)
