"""The explorer's widgets, one per screen area."""
