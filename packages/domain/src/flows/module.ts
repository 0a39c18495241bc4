/**
 * What the flows module contributes to the service (see `shared/Module.ts`): so far no job,
 * no operator event and no caller event; flow responses (`nfm_reply` messages) and the
 * `flow.response` caller event come with the sending slice.
 */
import * as Module from "../shared/Module.js"

export const module = Module.make({ name: "flows" })
