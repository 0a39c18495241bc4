/**
 * Logs go to stderr (stdout is the commands' output: `stores create` prints JSON): readable
 * lines on a terminal, one JSON object per line otherwise, or `LOG_FORMAT` when set.
 */
import { Effect, Layer, Logger, LogLevel } from "effect"
import * as AppConfig from "./Config.js"

/** The logger `LOG_FORMAT` names, writing to stderr. */
export const loggerFor = (format: "json" | "logfmt" | "pretty"): Logger.Logger<unknown, void> =>
  format === "pretty"
    ? // the pretty logger writes by itself; wrapping it in withConsoleError printed its `undefined` result
      Logger.prettyLogger({ stderr: true })
    : Logger.withConsoleError(format === "json" ? Logger.jsonLogger : Logger.logfmtLogger)

/**
 * While `serve` starts, its routine INFO lines (emulator started, runners started...) are left
 * out: the banner says it all once everything has started, and a failed start-up prints only
 * its one line. Warnings and errors always pass; `LOG_LEVEL=DEBUG` shows everything.
 */
const startup = { quiet: false }

/** `serve` calls this before it starts, and `startupDone` once the banner is out. */
export const quietStartup = Effect.sync(() => {
  startup.quiet = true
})

export const startupDone = Effect.sync(() => {
  startup.quiet = false
})

const quietWhileStarting = <M>(logger: Logger.Logger<M, void>, verbose: boolean): Logger.Logger<M, void> =>
  Logger.make((options) => {
    if (startup.quiet && !verbose && options.logLevel.ordinal < LogLevel.Warning.ordinal) return
    logger.log(options)
  })

export const layer = Layer.unwrapEffect(
  Effect.gen(function* () {
    const format = yield* AppConfig.logFormat
    const level = yield* AppConfig.logLevel
    const logger = quietWhileStarting(loggerFor(format), level.ordinal < LogLevel.Info.ordinal)
    return Layer.merge(Logger.replace(Logger.defaultLogger, logger), Logger.minimumLogLevel(level))
  })
)
