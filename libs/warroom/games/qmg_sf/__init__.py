"""Quartermaster General: South Front (registered as "qmg_sf")."""
