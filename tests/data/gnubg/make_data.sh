#!/bin/sh
# Regenerate the GNU Backgammon test data in this folder (needs Debian's gnubg;
# never needed by the product or the tests, which read the committed files).
# gnubg plays itself at 0-ply, with the cube, and exports each match as .mat.
set -e
here=$(cd "$(dirname "$0")" && pwd)
gen() {  # seed, "new match N" or "new session", output name, extra commands
    {
        echo "set seed $1"
        echo "set player 0 gnubg"; echo "set player 1 gnubg"
        for p in 0 1; do
            echo "set player $p chequerplay evaluation plies 0"
            echo "set player $p cubedecision evaluation plies 0"
        done
        printf '%b' "$4"
        printf "%b\n" "$2"
        echo "export match mat $here/$3"
    } | timeout 300 /usr/games/gnubg -t -q > /dev/null 2>&1
}
gen 1 "new match 3" match3_seed1.mat ""
gen 2 "new match 5" match5_seed2.mat ""
gen 3 "new match 7" match7_seed3.mat ""
gen 4 "new match 9" match9_seed4.mat ""
gen 5 "new match 11" match11_seed5.mat ""
gen 6 "new match 1" match1_seed6.mat ""
# a money session of 7 games (with resignations), no Jacoby
gen 7 "new session\nnew game\nnew game\nnew game\nnew game\nnew game\nnew game" money_seed7.mat "set automatic game off\nset jacoby off\n"
# a money session of 15 games with the Jacoby rule (gnubg writes no header for it)
gen 8 "new session\nnew game\nnew game\nnew game\nnew game\nnew game\nnew game\nnew game\nnew game\nnew game\nnew game\nnew game\nnew game\nnew game\nnew game" money_jacoby_seed8.mat "set automatic game off\nset jacoby on\nset beavers 3\n"
