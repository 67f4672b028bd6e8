/** The executable-example convention and the comparison rules the docs are held to. */
import t from 'tap'
import { DocExampleError, extractExamples, isCliExample, isCurlExample, isExample, isVariablesExample, parseDocumentedResponse, usesShell } from '../../src/http/docs/doc-examples.ts'
import { compareCliOutput, compareResponse, fillExample, matchShape, normaliseCliOutput, shellWords } from './example-runner.ts'

t.test('shell words, as sh would split them', async (t) => {
  t.same(shellWords(`curl -i -X POST "http://x/api?a=1" \\\n  -H "x-service-token: T" \\\n  -d '{"a": "b c", "d": "$HOME"}'`), [
    'curl', '-i', '-X', 'POST', 'http://x/api?a=1', '-H', 'x-service-token: T', '-d', '{"a": "b c", "d": "$HOME"}',
  ])
  t.same(shellWords('# a comment\n$ curl a\\ b "c\\"d" e'), ['curl', 'a b', 'c"d', 'e'])
  t.same(shellWords(`curl -d '{\n  "multi": "line"\n}'`), ['curl', '-d', '{\n  "multi": "line"\n}'], 'newlines inside quotes are kept')
  for (const [command, why] of [
    ['curl x | jq .', /needs a shell/],
    ['curl x > out', /needs a shell/],
    ['curl -H "t: $TOKEN" x', /inside double quotes/],
    ['curl $URL', /needs a shell/],
    ['curl http://x/?a=1', /quote words containing "\?"/],
    ['curl a\ncurl b', /one command per example/],
    [`curl 'open`, /unterminated single quote/],
    ['curl "open', /unterminated double quote/],
  ] as const) {
    t.throws(() => shellWords(command), why, command)
  }
})

t.test('placeholders', async (t) => {
  t.equal(fillExample('{base_url}/x?token=<WEBHOOK_TOKEN>', { '{base_url}': 'http://h', '<WEBHOOK_TOKEN>': 'llwh_1' }), 'http://h/x?token=llwh_1')
  t.equal(fillExample('{other} <b>', {}), '{other} <b>', 'unknown {names} and lower-case tags are text')
  t.throws(() => fillExample('<API_KEY>', { '<WEBHOOK_TOKEN>': 'x' }), /unknown placeholder <API_KEY>/)
})

t.test('JSON shapes', async (t) => {
  t.same(matchShape({ a: 1, b: 'x', c: [true, null] }, { a: 1, b: 'x', c: [true, null] }), [], 'equal values match')
  t.same(matchShape({ id: 'ld_…', any: '…' }, { id: 'ld_123', any: { deep: [1] } }), [], '"…" and "prefix…"')
  t.match(matchShape({ id: 'ld_…' }, { id: 'key_1' }), [/\$\.id: "key_1" does not match "ld_…"/])
  t.match(matchShape({ id: 'ld_…' }, { id: 7 }), [/expected a string/])
  t.match(matchShape({ a: 1 }, { a: 1, b: 2 }), [/\$\.b: not documented/], 'undocumented keys are differences')
  t.same(matchShape({ a: 1, '…': '…' }, { a: 1, b: 2 }), [], 'unless the object says "…"')
  t.match(matchShape({ a: 1, b: 2 }, { a: 1 }), [/\$\.b: missing/])
  t.match(matchShape([1, 2], [1, 2, 3]), [/expected 2 elements, got 3/])
  t.same(matchShape([1, '…'], [1, 2, 3]), [], 'a last "…" allows more elements')
  t.match(matchShape([1, '…'], []), [/at least 1/])
  t.match(matchShape({ n: 1 }, { n: '1' }), [/expected 1, got "1"/], 'types matter')
  t.same(matchShape({ text: '{"summary": "…", "stale_leads": []}' }, { text: '{"summary":"2 leads","stale_leads":[]}' }), [], 'a string holding JSON is compared as JSON')
  t.match(matchShape({ text: '{"summary": "…"}' }, { text: '{"summary":"x","extra":1}' }), [/\$\.text<json>\.extra: not documented/])
  t.match(matchShape({ text: '{"a": 1}' }, { text: 'plain' }), [/a string holding JSON/])
})

t.test('documented responses', async (t) => {
  const documented = parseDocumentedResponse('HTTP/1.1 405 Method Not Allowed\nAllow: POST\ncontent-type: application/json…\n\n{"error": "method not allowed", "detail": "…"}', 1)
  t.same(documented, { status: 405, headers: [['allow', 'POST'], ['content-type', 'application/json…']], body: '{"error": "method not allowed", "detail": "…"}' })
  const real = { status: 405, headers: [['allow', 'POST'], ['content-type', 'application/json; charset=utf-8'], ['date', 'now']] as const, body: '{"error":"method not allowed","detail":"use POST"}' }
  t.same(compareResponse(documented, real), [])
  t.match(compareResponse({ ...documented, status: 400 }, real), [/status: documented 400, got 405/])
  t.match(compareResponse({ ...documented, headers: [['retry-after', '5']] }, real), [/header retry-after: missing/])
  t.match(compareResponse({ ...documented, headers: [['allow', 'GET']] }, real), [/header allow: documented "GET", got "POST"/])
  t.match(compareResponse({ ...documented, body: '' }, real), [/documented none/])
  t.same(compareResponse({ ...documented, body: '# Leadline\n\n> …' }, { ...real, body: '# Leadline\n\n> A summary.\n' }), [], 'text bodies with "…"')
  t.match(compareResponse({ ...documented, body: '{"a": 1}' }, { ...real, body: 'not json' }), [/documented JSON/])
  t.throws(() => parseDocumentedResponse('201 Created', 9), /line 9: a response block must start with a status line/)
  t.throws(() => parseDocumentedResponse('HTTP/1.1 200 OK\nno colon here', 3), /not a header line/)
})

t.test('command-line output', async (t) => {
  t.equal(
    normaliseCliOutput('key key_6m3q9v2x8c5d1f4h created\nAPI key: ll_live_2q7v4x9c3d8f1h6k5m2n7p4r9t3w6y1z\nll_live_2q7v…   at 2026-11-22T08:05:29.066Z\nmore: --cursor eyJwIjoxMn0  '),
    'key key_<id> created\nAPI key: ll_live_<secret>\nll_live_<hint>… at <time>\nmore: --cursor <cursor>',
  )
  t.same(compareCliOutput('account acc_3f8k2m9q4v7x1c6d created: X', { code: 0, output: 'account acc_zzzzzzzzzzzzzzzz created: X' }), [])
  t.same(compareCliOutput('{\n  "a": 1,\n  …\n}', { code: 0, output: '{\n  "a": 1,\n  "b": 2,\n  "c": 3\n}' }), [], 'a line of "…" stands for lines')
  t.same(compareCliOutput('{\n  "a": 1,\n  …\n  "z": 2\n}', { code: 0, output: '{\n  "a": 1,\n  "z": 2\n}' }), [], 'even none')
  t.match(compareCliOutput('account x created', { code: 0, output: 'account y created' }), [/output differs/])
  t.match(compareCliOutput(null, { code: 2, output: 'leadline: bad' }), [/exit code 2: leadline: bad/], 'a command without documented output must succeed')
  t.same(compareCliOutput('leadline: no account acc_0000000000000000', { code: 2, output: 'leadline: no account acc_0000000000000000' }), [])
  t.match(compareCliOutput('leadline: bad input', { code: 0, output: 'leadline: bad input' }), [/documented as failing/])
})

t.test('extracting examples from a page', async (t) => {
  const page = [
    '# Page', '', 'Lede.', '',
    '```sh', 'curl -i "{base_url}/a"', '```', '', 'Some words in between.', '',
    '```http', 'HTTP/1.1 200 OK', '', '{"ok": true}', '```', '',
    '<!-- example-account: {"industry": "solar"} -->', '',
    '1. A step:', '', '   ```sh', '   npx leadline account show <ACCOUNT_ID>', '   ```', '',
    '   ```text', '   output', '   ```', '',
    '```sh', 'npx leadline account list', 'npx leadline key list --account <ACCOUNT_ID>', '```', '',
    '```sh', 'npm start', '```', '',
    '```sh', 'npx leadline serve', '```', '',
  ].join('\n')
  const examples = extractExamples(page)
  t.equal(examples.length, 3)
  t.match(examples[0], { kind: 'http', index: 1, line: 5, accountGeneration: 0, accountSettings: {}, response: { status: 200, body: '{"ok": true}' } })
  t.match(examples[1], { kind: 'cli', line: 21, commands: ['npx leadline account show <ACCOUNT_ID>'], output: 'output', accountGeneration: 1, accountSettings: { industry: 'solar' } })
  t.match(examples[2], { kind: 'cli', commands: ['npx leadline account list', 'npx leadline key list --account <ACCOUNT_ID>'], output: null })
  t.ok(isCurlExample('bash', '$ curl -i x'))
  t.notOk(isCurlExample('text', 'curl -i x'), 'only shell blocks run')
  t.ok(isCliExample('sh', 'LOG_LEVEL=debug npx leadline account list'))
  t.notOk(isCliExample('sh', 'npx leadline serve'), 'serve never runs')
  t.notOk(isCliExample('sh', 'npm ci\nnpx leadline account list'), 'a block mixing other commands is not an example')

  t.throws(() => extractExamples('```sh\ncurl -i x\n```\n\n```json\n{}\n```\n'), DocExampleError, 'a curl example needs an http response')
  t.throws(() => extractExamples('```sh\ncurl -i x\n```\n'), /must be followed by an ```http block/)
  t.throws(() => extractExamples('<!-- example-account: [1] -->\n'), /example-account takes a JSON object/)
  t.throws(() => extractExamples('```sh\nnpx leadline account list\nnpx leadline key list\n```\n\n```text\nx\n```\n'), /output of one command at a time/)
})

t.test('a page pasted in order: variables set from commands, used by the blocks after', async (t) => {
  const page = [
    '```sh', 'ACCOUNT=$(npx leadline account create --name "A" --json)', "TOKEN=$(node -p 'JSON.parse(process.argv[1]).webhookToken.token' \"$ACCOUNT\")", '```', '',
    '```sh', 'curl -i "{base_url}/api/ingest/lead" \\', '  -H "x-service-token: $TOKEN" -d \'{"phone": "312-555-0142"}\'', '```', '',
    '```http', 'HTTP/1.1 201 Created', '', '{}', '```', '',
    '```sh', 'npx leadline leads --account "${ACCOUNT_ID}"', '```', '',
  ].join('\n')
  const examples = extractExamples(page)
  t.match(examples, [
    { kind: 'variables', line: 1, shell: true, text: /^ACCOUNT=\$\(npx leadline/ },
    { kind: 'http', shell: true },
    { kind: 'cli', shell: true, commands: ['npx leadline leads --account "${ACCOUNT_ID}"'] },
  ])
  t.equal(examples.length, 3)
  t.ok(isVariablesExample('sh', 'A=$(x)\n# a comment\nB=$(y "$A")'))
  t.notOk(isVariablesExample('sh', 'A=1'), 'only variables set from a command')
  t.notOk(isCliExample('sh', 'A=$(npx leadline account list --json)'), 'setting a variable is not a command-line example')
  t.notOk(usesShell(`curl -i x -d '{"a": "$HOME"}'`), 'single quotes keep $ as written')
  t.ok(usesShell('curl -i x -H "a: $TOKEN"'))
  t.notOk(extractExamples('```sh\nnpx leadline account list\n```\n')[0]?.shell, 'a plain command runs without a shell')
  t.ok(isExample('sh', 'A=$(x)') && isExample('sh', 'curl -i x') && !isExample('sh', 'npm ci'), 'the docs site marks each kind as tested')

  t.throws(
    () => extractExamples('```sh\nA=$(x)\n```\n\n```sh\nnpx leadline leads --account <ACCOUNT_ID>\n```\n'),
    /line 5: this page sets shell variables to be pasted in order: write "\$ACCOUNT_ID", set by a block before, not the placeholder <ACCOUNT_ID>/,
  )
})
