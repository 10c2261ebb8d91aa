import { join } from "node:path";
import type { Config } from "../../config.js";

/** The local upload store's directory: <data_dir>/uploads. */
export const uploadsDir = (config: Config) => join(config.data_dir, "uploads");
