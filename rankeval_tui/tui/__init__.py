"""The Textual app: views over core objects. Screens never parse files or compute metrics."""
