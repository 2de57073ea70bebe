// Package testwait holds how long tests wait for what must happen. It
// imports nothing of mcpdecl, so that the tests of any package can use it,
// those that internal/enginetest cannot import (it loads configurations,
// which imports most of the engine) included.
package testwait

import "time"

// Patience is how long a test waits for something that must happen, such as
// a notification or a process's exit: long enough that only a hang, never a
// busy machine, runs out of it. A test states what it waits for by its
// outcome, not by how soon it comes.
const Patience = 2 * time.Minute
