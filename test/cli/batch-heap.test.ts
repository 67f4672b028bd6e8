/**
 * `leadline replay` starts again under its heap bound unless its Node was given one; every other
 * command runs as it is. (Through the binary, the replay's output and exit codes are checked in
 * audit-cli.test.ts, which runs it this way.)
 */
import t from 'tap'
import { BATCH_HEAP_FLAGS, relaunchArguments } from '../../src/cli/batch-heap.ts'

t.test('replay starts again with the heap bound, before the Node flags it was given', async (t) => {
  t.same(relaunchArguments([], '/x/bin/leadline.js', ['replay', '--verify']), [...BATCH_HEAP_FLAGS, '/x/bin/leadline.js', 'replay', '--verify'])
  t.same(relaunchArguments(['--enable-source-maps'], '/x/bin.js', ['replay']), [...BATCH_HEAP_FLAGS, '--enable-source-maps', '/x/bin.js', 'replay'])
  t.match(BATCH_HEAP_FLAGS, [/^--max-old-space-size=\d+$/])
})

t.test('a heap bound given by the operator is kept; other commands run as they are', async (t) => {
  t.equal(relaunchArguments(['--max-old-space-size=512'], '/x/bin.js', ['replay']), null)
  t.equal(relaunchArguments([...BATCH_HEAP_FLAGS], '/x/bin.js', ['replay']), null, 'the relaunched process does not relaunch again')
  for (const args of [['serve'], ['history', '--account', 'a', '--phone', '1'], ['audit', 'verify'], [], ['--help']]) {
    t.equal(relaunchArguments([], '/x/bin.js', args), null, args.join(' ') || '(no arguments)')
  }
})
