import { unitTestFiles } from '../test-plan.ts'
import { runShard } from '../run-shard.ts'

await runShard(unitTestFiles(), 2, 4)
