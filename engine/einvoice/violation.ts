// One broken rule as the checks collect it (rules.ts reports them together).
export interface Violation { rule: string, key: string, detail: string }

/** Whether any member of a group of optional terms is given. */
export const anyGiven = (o: object): boolean => Object.values(o).some((x: unknown) => x !== undefined)
