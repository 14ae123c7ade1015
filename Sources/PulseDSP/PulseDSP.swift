// PulseDSP: fixed-point filters and the streaming beat detector. Pure: no Foundation, no I/O, no allocation per
// sample. See README.md ("Architecture").
