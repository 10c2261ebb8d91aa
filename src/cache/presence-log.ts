/** Changes remembered for changedSince(); beyond that, readers start over. */
const CHANGE_LOG_LIMIT = 10_000;

/**
 * Whose presence changed, by update ID, for readers that bring a presences map up to
 * date change by change. IDs only increase but may skip numbers (with several processes
 * the sequence is shared by every realm, and a user's older changes are overwritten).
 */
export class PresenceChangeLog {
  private ids: number[] = [];
  private users: number[] = [];

  /** Every change after update `floor` is held. */
  constructor(private floor: number) {}

  /** Notes that update `updateId` (larger than any before it) changed `userId`'s presence. */
  add(updateId: number, userId: number): void {
    this.ids.push(updateId);
    this.users.push(userId);
    if (this.ids.length <= CHANGE_LOG_LIMIT) return;
    const dropped = this.ids.length - CHANGE_LOG_LIMIT / 2;
    this.floor = this.ids[dropped - 1]!;
    this.ids.splice(0, dropped);
    this.users.splice(0, dropped);
  }

  /**
   * The users whose presence changed after update `updateId` (repeats possible), or null
   * when that is too long ago to tell or later than `newest`.
   */
  since(updateId: number, newest: number): readonly number[] | null {
    if (updateId < this.floor || updateId > newest) return null;
    let low = 0;
    let high = this.ids.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.ids[middle]! <= updateId) low = middle + 1;
      else high = middle;
    }
    return this.users.slice(low);
  }
}
