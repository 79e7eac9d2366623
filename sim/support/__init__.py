"""Small helpers every layer may use: bounded file reading and YAML, the one message checker,
platform differences, the bundled files and the user's folder, noticing files change."""
