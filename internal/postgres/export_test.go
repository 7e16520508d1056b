package postgres

// BoundByDeadline is boundByDeadline, for the external tests.
var BoundByDeadline = boundByDeadline
