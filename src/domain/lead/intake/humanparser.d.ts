// The part of humanparser (CommonJS, untyped) that full-name.ts uses.
declare module 'humanparser' {
  interface ParsedName {
    readonly salutation?: string
    readonly firstName?: string
    readonly middleName?: string
    readonly lastName?: string
    readonly suffix?: string
    readonly fullName?: string
  }
  const humanparser: { parseName(name: string): ParsedName }
  export default humanparser
}
