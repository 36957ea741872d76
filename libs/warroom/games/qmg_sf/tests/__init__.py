"""Tests of Quartermaster General: South Front."""
