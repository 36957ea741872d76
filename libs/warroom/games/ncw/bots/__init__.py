"""New Cold War's official bots (rulebook section 6, Annex IV) and the variants' own rules.

`flowchart` holds the seven-step OP flowchart, `board` the position a bot reads,
`data` the tables of content/bots.yaml and content/variants.yaml.
"""
