#include "coll/state.hpp"

namespace ftmpi::coll {

State::State(p2p::Engine& eng) : eng_(&eng), forced_(forced_from_env()), inject_(ft::inject_points_from_env()) {}

State::~State() = default;

}  // namespace ftmpi::coll
