"""Simulation: bot games in bulk, their statistics and benchmarks (sits on the engine and bots)."""
