# Exporters and importers of other tools' formats.
