// Included from below by aoe/core/ground.hpp (the checker's fixture).
