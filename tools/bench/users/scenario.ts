// The users-per-core figures as benchmark scenarios (see run.ts for how they are measured).
import { findUsersPerCore, LIMITS, type UsersOptions } from "./run.js";

export interface UsersScenario {
  name: string;
  value: number;
  unit: string;
  baseline: number | null;
  ratio: null;
  driver: UsersOptions["driver"];
  target?: string;
}

/** users_per_core (or users_<N>_workers), and at that count chatd's RSS and the p99s. */
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
  return scenarios;
}
