"""A site profile and its rules: the schema, one rule compiled and applied, field chains, what values should look like."""
