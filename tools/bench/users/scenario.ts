// The users-per-core figures as benchmark scenarios (see run.ts for how they are measured).
import { round } from "../stats.js";
import { findUsersPerCore, LIMITS, type StepResult, type UsersOptions } from "./run.js";

export interface UsersScenario {
  name: string;
  value: number;
  unit: string;
  baseline: number | null;
  ratio: null;
  driver: UsersOptions["driver"];
  target?: string;
}

/**
 * users_per_core (or users_<N>_workers), and at that count chatd's RSS, the p99s and the CPU
 * per user; on PostgreSQL also PostgreSQL's CPU and the write lock's hold times. The
 * scenarios' driver ("pg") tells the databases apart.
 */
export async function usersScenarios(options: UsersOptions): Promise<UsersScenario[]> {
  const prefix = options.workers > 1 ? `users_${options.workers}_workers` : "users";
  const { best, firstFailing } = await findUsersPerCore(options);
  const limit = firstFailing
    ? `limit at ${firstFailing.users} users: ${firstFailing.limit}`
    : `no limit hit up to ${best?.users} users`;
  const at = (name: string, value: number, unit: string, target = ""): UsersScenario => ({
    name: `${prefix}_${name}`,
    value,
    unit,
    baseline: null,
    ratio: null,
    driver: options.driver,
    target,
  });
  const scenarios = [
    {
      ...at("per_core", best?.users ?? 0, `users (${limit})`, ">= 10000"),
      name: options.workers > 1 ? prefix : "users_per_core",
    },
  ];
  if (best) {
    scenarios.push(
      at("rss_mb", best.rss_mb, "MB"),
      at("cpu_pct", best.cpu_pct, "% of a core"),
      at("send_p99_ms", best.send.p99_ms, "ms", `<= ${LIMITS.send_p99_ms}`),
      at("delivery_p99_ms", best.delivery.p99_ms, "ms", `<= ${LIMITS.delivery_p99_ms}`),
      at("register_p99_ms", best.register.p99_ms, "ms", `<= ${LIMITS.register_p99_ms}`),
      at("requests_per_sec", best.requests_per_sec, "req/s"),
    );
  }
  // The costs per user and of the lock, for estimates: at the passing count, else (nothing
  // passed) at the failing one, which says so.
  const costs = best ?? firstFailing;
  if (costs) scenarios.push(...costScenarios(costs, best ? "" : ", failed", at));
  return scenarios;
}

/** CPU per user (chatd's, PostgreSQL's) and the write lock's holds of one step. */
function costScenarios(
  step: StepResult,
  failed: string,
  at: (name: string, value: number, unit: string) => UsersScenario,
): UsersScenario[] {
  const where = ` at ${step.users} users${failed}`;
  const costs = [at("cpu_ms_per_user_s", step.cpu_ms_per_user_s, `CPU ms per user-second (chatd${where})`)];
  if (step.db_cpu_pct !== null) {
    costs.push(
      at("db_cpu_pct", step.db_cpu_pct, `% of a core (PostgreSQL${where})`),
      at(
        "db_cpu_ms_per_user_s",
        round((step.db_cpu_pct * 10) / step.users, 3),
        `CPU ms per user-second (PostgreSQL${where})`,
      ),
    );
  }
  for (const [kind, l] of Object.entries(step.locks ?? {})) {
    costs.push(
      at(
        `lock_${kind}_hold_p50_ms`,
        l.hold_p50_ms,
        `ms (${l.n} transactions of ${l.items_mean} items${where})`,
      ),
      at(`lock_${kind}_hold_p99_ms`, l.hold_p99_ms, `ms (wait p99 ${l.wait_p99_ms} ms)`),
      at(`lock_${kind}_busy_pct`, l.busy_pct, "% of the window held"),
    );
  }
  return costs;
}
