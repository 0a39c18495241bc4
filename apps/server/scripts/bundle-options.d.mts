/** The types of `bundle-options.mjs`, for the TypeScript that imports it (tests, global setup). */
export declare const nodeBundle: {
  readonly format: "esm"
  readonly platform: "node"
  readonly target: string
  readonly conditions: Array<string>
  readonly external: Array<string>
  readonly banner: { readonly js: string }
}
