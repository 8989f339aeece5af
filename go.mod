module nothanks

go 1.26.8
