"""The PySide6 layer: windows, views, models, the reader."""
