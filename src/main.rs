fn main() {
    println!("mcpdeck");
}
