/**
 * Every environment variable the `switchboard` CLI reads, once: `--help` lists them, and
 * `test/cli.test.ts` checks that the sources read no other and that `.env.example` and the
 * README name each of them.
 */
export interface Variable {
  readonly name: string
  readonly default: string
  readonly meaning: string
}

export const variables: ReadonlyArray<Variable> = [
  { name: "PORT", default: "3000", meaning: "HTTP port" },
  { name: "HOST", default: "127.0.0.1", meaning: "Interface to listen on; 0.0.0.0 opens the server to the network (empty: the default)" },
  {
    name: "DATABASE_URL",
    default: "./data/switchboard.sqlite",
    meaning: "A postgres:// URL selects PostgreSQL; a path or file: URL is a SQLite file"
  },
  {
    name: "LOG_LEVEL",
    default: "INFO",
    meaning: "trace, debug, info, warn (or warning), error, fatal, none, or all, in any case (as the --log-level option)"
  },
  { name: "LOG_FORMAT", default: "pretty on a terminal, else json", meaning: "json, logfmt or pretty; logs go to stderr" },
  {
    name: "OPERATOR_ACCESS_TOKEN",
    default: "unset",
    meaning: "Live operator token (with OPERATOR_APP_SECRET); unset: every store uses the emulator"
  },
  { name: "OPERATOR_APP_SECRET", default: "unset", meaning: "Live operator app secret (webhook signatures)" },
  { name: "OPERATOR_BASE_URL", default: "https://graph.facebook.com", meaning: "The live operator's base URL" },
  { name: "OPERATOR_API_VERSION", default: "v23.0", meaning: "Graph API version" },
  { name: "OPERATOR_VERIFY_TOKEN", default: "random", meaning: "Token of the operator's webhook subscription handshake" },
  { name: "SWITCHBOARD_PUBLIC_URL", default: "http://127.0.0.1:$PORT", meaning: "Where the emulator sends its webhooks to this server" },
  { name: "SWITCHBOARD_EMULATOR_URL", default: "unset", meaning: "Use an emulator running elsewhere (with SWITCHBOARD_EMULATOR_APP_SECRET)" },
  { name: "SWITCHBOARD_EMULATOR_APP_SECRET", default: "random", meaning: "The secret the emulator signs its webhooks with" },
  {
    name: "SWITCHBOARD_EMULATOR_STATE",
    default: "next to the SQLite file",
    meaning: "Where the in-process emulator keeps its accounts and templates"
  },
  { name: "SWITCHBOARD_EMULATOR_REVIEW_DELAY_MS", default: "3000", meaning: "How long the emulator takes to review a template" },
  { name: "SWITCHBOARD_EMULATOR_MPS", default: "80", meaning: "The emulator's messages-per-second limit per number" },
  { name: "SWITCHBOARD_EMULATOR_CATALOG_BATCH_CALLS", default: "10", meaning: "The emulator's items_batch quota: calls per catalog in any window" },
  { name: "SWITCHBOARD_EMULATOR_CATALOG_BATCH_WINDOW_MS", default: "60000", meaning: "The window of the emulator's catalog batch quota" },
  { name: "SWITCHBOARD_EMULATOR_ITEMS_BATCH_MS", default: "200", meaning: "How long the emulator takes to process an items_batch chunk" },
  { name: "SWITCHBOARD_EMULATOR_PORT", default: "4010 for `switchboard emulator`, any free port in-process", meaning: "Port of the emulator" },
  {
    name: "SWITCHBOARD_ALLOW_PRIVATE_URLS",
    default: "false",
    meaning: "Lets the URLs we call (webhooks, flow data endpoints, feed URLs) reach loopback/private addresses (development only)"
  },
  {
    name: "SWITCHBOARD_FLOW_SECRET",
    default: "random per process",
    meaning: "Signs flow preview links and seals flow endpoint keys (set it to share them across processes and restarts)"
  },
  { name: "SWITCHBOARD_WORKER", default: "true", meaning: "Whether serve also runs the job worker" },
  {
    name: "SWITCHBOARD_READY_MAX_JOB_AGE",
    default: "60",
    meaning: "Seconds the oldest runnable job may wait before /readyz answers 503 (the workers are behind)"
  },
  { name: "SWITCHBOARD_RETAIN_INBOX", default: "7d", meaning: "How long processed operator webhooks (the inbox) are kept (1s, 30m, 7d…)" },
  { name: "SWITCHBOARD_RETAIN_JOBS", default: "1d", meaning: "How long finished and dead jobs are kept" },
  { name: "SWITCHBOARD_RETAIN_DELIVERIES", default: "30d", meaning: "How long caller webhook delivery attempts are kept" },
  {
    name: "SWITCHBOARD_RETAIN_IDEMPOTENCY",
    default: "24h",
    meaning: "How long completed idempotency keys are kept (a replay after that runs again)"
  },
  { name: "SWITCHBOARD_RETENTION_INTERVAL", default: "10m", meaning: "How often a worker deletes what is older than its period, in small batches" },
  {
    name: "SWITCHBOARD_MIRROR_SWEEP_DELAY_MS",
    default: "60000",
    meaning: "How long after a change that waits on the operator a worker checks it finished, and finishes it if the process stopped midway"
  },
  {
    name: "SWITCHBOARD_PAGE_CACHE",
    default: "true",
    meaning: "On SQLite, answer hot list pages again from memory while no write has committed to the file since"
  },
  {
    name: "SWITCHBOARD_ADMIN_TOKEN",
    default: "unset",
    meaning:
      "The admin token: reads /metrics, signs in to the console as administrator and opens /admin (unset: /metrics answers 401 to everyone and there is no admin sign-in)"
  },
  {
    name: "SWITCHBOARD_SHUTDOWN_GRACE",
    default: "10s",
    meaning: "On SIGTERM, how long in-flight requests, then running jobs, may take to finish before they are stopped"
  },
  {
    name: "OTEL_EXPORTER_OTLP_ENDPOINT",
    default: "unset",
    meaning: "Send a span per request, job and operator call over OTLP/HTTP to this base URL"
  },
  { name: "OTEL_SERVICE_NAME", default: "switchboard", meaning: "The service name on exported spans" },
  { name: "SWITCHBOARD_CONSOLE_DIR", default: "apps/console/dist", meaning: "Where the console's built files are (served at /console)" },
  {
    name: "SWITCHBOARD_MEDIA_DIR",
    default: "media/ beside the SQLite file, else ./data/media",
    meaning: "Where uploaded media files are kept; servers sharing a PostgreSQL database share it"
  },
  { name: "SWITCHBOARD_CAMPAIGN_MPS", default: "80", meaning: "Campaign messages per second per sender number (at most 1000)" },
  {
    name: "SWITCHBOARD_CAMPAIGN_RECONCILE_MS",
    default: "120000",
    meaning: "How long a crashed worker's sending recipient waits for a status before a resend"
  },
  { name: "SWITCHBOARD_CAMPAIGN_LEASE_MS", default: "30000", meaning: "Lease of a campaign sender lane" },
  { name: "SWITCHBOARD_CAMPAIGN_MAX_LANES", default: "64", meaning: "Sender lanes one worker runs at once" },
  { name: "SWITCHBOARD_CAMPAIGN_MAX_IN_FLIGHT", default: "32", meaning: "Campaign sends in flight per lane" },
  { name: "SWITCHBOARD_MESSAGING_WINDOW_MS", default: "86400000", meaning: "The messaging limit's rolling window (shorter only in tests)" },
  { name: "SWITCHBOARD_CATALOG_BATCH_CALLS", default: "10", meaning: "items_batch calls per catalog the worker makes in any quota window" },
  { name: "SWITCHBOARD_CATALOG_BATCH_WINDOW_MS", default: "60000", meaning: "The catalog batch quota's window" },
  { name: "SWITCHBOARD_URL", default: "http://127.0.0.1:$PORT", meaning: "The API the CLI's client commands call (campaigns watch)" },
  { name: "SWITCHBOARD_API_KEY", default: "unset", meaning: "The key the CLI's client commands send (or --key)" }
]

/** The variables as aligned text lines, for `--help`. */
export const describe = (): string => {
  const width = Math.max(...variables.map((v) => v.name.length))
  return variables.map((v) => `${v.name.padEnd(width)}  ${v.meaning} (default: ${v.default})`).join("\n")
}
