import { runShard } from './run-shard.ts'

await runShard(0, 3)
