module example.com/byo-policy

go 1.26.8

require github.com/evalsched/lab v0.0.0

replace github.com/evalsched/lab => ../..
