"""Razor views and pages (`.cshtml`, `.razor`): `parser` links markup to the C# it uses."""
