/**
 * Wires the optional modules into `analyze` and `report` (kept apart so each module stays
 * independent of the report's shape).
 */
export {};
