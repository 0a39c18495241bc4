/** The media module's public names (re-exported by `@switchboard/domain` through `Modules.ts`). */
export * as Media from "./Media.js"
export * as MediaPorts from "./MediaPorts.js"
export * as Medias from "./Medias.js"
