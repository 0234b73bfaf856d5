#pragma once
// Hazard pointers: a thread announces the one shared object it is reading, so that a thread
// which has unlinked that object frees it only once no thread announces it any more. The
// reader's cost is one store and one load of its own announcement, no lock and no shared
// counter.
namespace livetune::hazard {

// Announces `p` (replacing this thread's previous announcement). The reader must then check
// that `p` is still linked where it found it; if it is, p stays alive until clear().
void protect(const void* p);
void clear();
// Whether any thread announces `p`: an unlinked object that no thread announces can be freed.
bool announced(const void* p);

}  // namespace livetune::hazard
