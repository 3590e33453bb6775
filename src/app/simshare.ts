/** The simulation part of share links lives in the engine (shared with the CLI); the app's views import it from here. */
export * from '../engine/share/simulation.ts';
