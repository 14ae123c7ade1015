// The Indicators module. See README.md ("Architecture") for its place in the data flow.
