// tap's coverage map (package.json "coverage-map"): the files each test file's coverage counts.
// test/build runs the compiled service in dist/, build output whose sources every other test covers,
// so it counts none; every other test counts what it loads, as without a map.
export default (testFile) => (testFile.replaceAll('\\', '/').endsWith('test/build/build.test.ts') ? null : [])
