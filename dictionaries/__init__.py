"""Dictionary administration: the word lists rooms play with, their compiled versions,
staff edits and uploads (see ``services``)."""
