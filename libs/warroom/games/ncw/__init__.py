"""New Cold War (Fenix/Ludofact, 2024): rules, content, official bots."""
