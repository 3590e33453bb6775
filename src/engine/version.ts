/**
 * version: the report schema and generator names. A leaf module (no imports) so that the report,
 * the simulator and the share codec all use one constant without importing each other.
 */
export const REPORT_SCHEMA = 'refscope.report/1';
export const GENERATOR = 'refscope 0.1.0';
